"""Given names: the 1,000 most frequent male and 1,500 most frequent female first names of the 1990 U.S. Census
(a work of the U.S. government, public domain; the frequency files as shipped by the MIT-licensed `names` 0.3.0
package), less names of two letters, names the gazetteer knows as places ("Georgia", "Jordan"), month names and
names the State of the Union corpus (1790-2026) writes in lower case at least twice ("grant", "mark", "will").

A name of several words that opens with one of these ("Leona Naess", "Vivian French") votes Person
(kgkit.extractors.offline.votes). 2047 names.
"""

__all__ = ["GIVEN_NAMES"]

_NAMES = """
aaron abbie abby abdul abe abel abigail abraham adan addie adela adelaida adele adelina adeline adell adolfo adolph
adriana adrianne adrienne agatha agnes agustin ahmad ahmed aida aileen aimee aisha alaina alan alana albert alberto
alda alden aldo alec alecia alejandra alejandro alene aletha alex alexa alexander alexis alfonso alfonzo alfred
alfreda alfredo alina aline alisa alisha alison alissa allan allene allie allison allyson alonzo alpha alphonse
alphonso althea alva alvaro alvina alyce alyson alyssa amado amalia amanda amber amelia amie amy ana anastasia andra
andre andrea andres andrew andy angela angelia angelica angelina angeline angelique angelita angelo angie anibal
anissa anita annabelle annamarie anne annemarie annetta annette annie annmarie anthony antionette antoine antoinette
anton antone antonette antonia antonio antwan araceli archie aretha ariana arleen arlene arline armand armando
arnulfo aron arron arthur arturo ashlee ashleigh ashley astrid athena aubrey audra audrey augustine augustus aura
aurelia aurelio ava avery avis barb barbara barbra barney bart barton basil beatrice beatriz beau becky belinda
bella belle belva ben benita benito benjamin bennett bennie benny bernadette bernadine bernard bernardo bernice
bernie berniece berry bert berta bertha bertie beryl bess bessie beth betsy bette bettie bettina betty bettye beulah
bianca billie billy birdie blair blake blanca blanche bob bobbi bobbie bobby bonita bonnie booker boris boyd bradly
brady branden brandi brandie brandy breanna brenda brendan brenna brenton bret brett brian briana brianna brianne
brice bridget bridgett bridgette brigitte britney brittany brittney brock brook brooke brooks bruce bruno bryce
bryon bud buford burl burt byron caitlin caleb callie calvin cameron camilla camille candace candi candice candida
candy cara caren cari caridad carissa carl carla carlene carlo carlos carlotta carly carmela carmelita carmella
carmen carmine carol carole caroline carolyn carrie carrol carroll carter caryn casandra casey cassandra cassie
catalina catharine catherine cathie cathleen cathrine cathryn cathy catina catrina cecelia cecil cecile cecilia
cedric celeste celestine celia chadwick chanda chandra chanel chang chantal chantel charla charleen charlene charles
charley charlie charline charmaine chasity chastity chauncey chelsey cheri cherie cherry cheryl chi chiquita chloe
chong chris christa christal christen christi christian christie christin christina christine christoper christopher
christy chrystal chuck cindi cindy clair claire clara clarence clarice clarissa clark claude claudette claudia
claudine claudio clement clementine cleo cliff clifford clint clyde cody colby cole coleen coleman colette colin
colleen collette collin concetta connie conrad constance consuelo cora cordelia corey cori corina corine corinne
cornelia cornell corrie corrine cortney cory courtney coy craig cristal cristina cristy cruz curt curtis cynthia
cyril cyrus daisy dale dalia damaris damian damien damion damon dan dana dane danelle danette danial daniel daniela
danielle danita danna dannie danny dante darcy daren darin dario darius darla darleen darlene darnell darrel darrell
darren darrin darryl daryl dave dawna dayna dean deana deandre deann deanna deanne debbie debby debi debora deborah
debra debrah dee deena deidra deidre deirdre delbert delfina delia delilah della delma delmar delmer delois delores
deloris delphine demetria demetrius dena denice denis denise dennis denny deon derek derick derrick desiree desmond
devin dewayne dewey dewitt dexter dian diana diane diann dianna dianne dick diego dillon dina dinah dino dion dionne
dirk dixie dollie dolly dominga domingo dominic dominick dominique dona donald donn donnell donnie donny donovan
dora dorcas dorene doretha dorian doris dorothea dorothy dorris dortha dorthy dottie doug dovie doyle duane dulce
dustin dusty dwayne dwight dylan earl earle earlene earline earnestine easter ebony eddie edgar edgardo edith edmund
edna eduardo edward edwardo edwin edwina edythe effie efrain efren eileen elaine elba elbert eldon eleanor eleanore
elena eli elia elias elida elijah elinor elisa elisabeth elise eliseo elisha elissa eliza elizebeth ella ellen ellie
elliot elliott ellis elma elmer elmo elnora eloisa elouise elsa elsie elton elvia elvin elvira elvis elyse emanuel
emerson emery emil emile emilia emilie emilio emily emma emmanuel emmett emory enrique eric erica erich erick ericka
erik erika erin erlinda erma erna ernest ernestina ernestine ernesto ernie errol ervin erwin essie esteban estela
estella ester esther ethan ethel etta eugenia eugenio eula eulalia eunice eva evan evangelina evangeline evelyn
everette evette ezra fabian fabiola fannie fanny fatima faustino fawn fay faye federico felecia felicia felicita
felipe felix ferdinand fern fernando fidel filomena fletcher flor florine flossie floy floyd forrest fran frances
francesca francine francis francisca francisco frankie fred freda freddie freddy frederic fredric fredrick freeman
freida frieda fritz gabriel gabriela gabriella gabrielle gail gale galen garrett garry garth gavin gaye gayla gayle
gena genaro genevieve genoveva geoffrey georgette georgiana georgianna georgie georgina gerald geraldine gerard
gerardo geri germaine german gerri gerry gertie gertrude gilberto gilda gillian gina ginger ginny gino giovanni
gisela gladys glen glenda glenn glenna gloria goldie gonzalo gordon gracie graciela grady greg gregg gregoria
gregorio gregory greta gretchen griselda grover guillermina guillermo gus gussie gustavo gwen gwendolyn hal haley
hallie hank hanna hannah hans harlan harley harold harriet harriett harriette harris harry hattie haydee hayley
hazel heath heather hector heidi helen helene helga hellen henry herbert heriberto herlinda herman herminia herschel
hershel hester hilario hilary hilda hildegard hillary hiram holli hollie holly homer horace horacio hortencia hubert
hugh hugo humberto ian ida idella ignacio ila ilene ima imelda imogene ines inez ingrid iola ione ira irene iris
irma irvin irwin isaac isabell isabella isabelle isaiah isiah isidro ismael issac iva ivan ivette ivonne ivory ivy
jack jackie jacklyn jaclyn jacob jacque jacquelin jacqueline jacquelyn jacques jacquline jade jaime jake jamaal
jamal jamar jame jamel james jami jamie jan jana jane janeen janel janell janelle janet janette janice janie janine
janis janna jannette jannie jaqueline jared jarred jarrett jarrod jarvis jasmin jasmine jason javier jay jayme jayne
jayson jean jeana jeanette jeanie jeanine jeanna jeanne jeannette jeannie jeannine jed jeff jefferey jefferson
jeffery jeffrey jeffry jenifer jenna jennie jennifer jenny jerald jeremiah jeremy jeri jermaine jerold jerome jerri
jerrod jerrold jerry jesica jess jesse jessica jessie jesus jewel jewell jill jillian jim jimmie jimmy joan joann
joanna joanne joaquin jocelyn jodi jodie jody joe joel joelle joesph joey johanna john johnathan johnathon johnie
johnna johnnie johnny jolene jon jonah jonas jonathan jonathon joni jonnie jorge jose josef josefa josefina joseph
josephine josette josh joshua josiah josie josue jovita joyce juan juana juanita judi judith judson judy jules juli
julia julian juliana julianna julianne julie juliet juliette julio julius jung justin justina justine kaitlin
kaitlyn kareem karen karin karina karl karla karol karon karrie karyn kasey kate katelyn katharine katherine
katheryn kathi kathie kathleen kathrine kathryn kathy katie katina katrina kay kaye kayla keisha keith kelley kelli
kellie kelly kelsey kelvin ken kendra kendrick kenneth kennith kenny kenton keri kermit kerri kerrie kesha keshia
keven kevin kia kieth kimberlee kimberly kip kirby kirk kirsten kisha kitty kory kris krista kristal kristen kristi
kristie kristin kristina kristine kristopher kristy krystal krystle kurt kurtis kyla kylie lacy ladonna lakeisha
lakesha lakisha lamar lan lana lance landon lane lanny laquita larissa larry lashawn lashonda latanya latasha
latisha latonia latonya latosha latoya latrice latricia laura laureen lauren laurence lauretta laurie lavern laverne
lavonne lawanda lazaro lea leah leann leanna leanne lee leeann leila leilani leisa lela lelia lemuel lena lenard
lenny lenora lenore leo leola leon leona leonard leonardo leone leonel leonor leonora leopoldo leora leota leroy les
lesa lesley lessie lester leta letha letitia lettie levi lewis lia libby lidia lila lilia lilian liliana lillian
lillie lilly lily lina lindsey lindy linnie linwood lionel lisa lisette lissette liz liza lizette lizzie lloyd lois
lolita lon lona lonnie lora loraine loren lorene lorenzo loretta lori lorie lorine lorna lorraine lorri lorrie
lottie lou louann louella louie louis louisa louise loyd luann luanne lucia luciano lucien lucila lucile lucille
lucinda lucio lucretia lucy luella luis luisa luke lula lulu lupe lura luther lydia lyle lyn lynda lynette lynne
lynnette mabel mable mac mack madeleine madeline madelyn madge madonna mae magda magdalene maggie majorie malcolm
malinda malissa mallory mamie mandy manuel manuela marc marcel marcela marcelina marcelino marcella marcelle marcelo
marci marcia marcie marcos marcus marcy margaret margarita margarito marge margery margie margo margot margret
marguerite maria mariah mariam marian mariann marianna marianne maribel maricela marie marilyn marilynn mario marisa
marisela marisol marissa maritza marjorie marjory marla marlena marlene marlin marlon marlyn marlys marnie marquis
marquita marsha marta martha martina marty marva marvin maryann maryanne marybeth maryellen maryjane marylou mathew
matilda matilde matt matthew mattie maud maude maudie maura maureen maurice mauricio maurine mauro mavis max maxine
maxwell maya mayme maynard mayra meagan meaghan megan meghan mei mel melanie melba melinda melisa melissa mellisa
mellissa melodie melody melva melvin melvina meredith merle merlin merrill merry mervin mia micaela micah michael
michaela micheal michel michele michell michelle mickey migdalia miguel mike milagros mildred millard millicent
millie milo mimi mina mindy minerva minnie miriam missy misti misty mitch mitchel mitzi mohamed mohammad mohammed
moises mollie molly mona monica monika monique monte monty morgan morris moses mozelle muriel myles myra myrna myron
myrtis myrtle nadia nadine nakia nanette nannie naomi napoleon natalia natalie natasha nathalie nathan nathaniel
natividad neal ned nedra neil nelda nell nellie nelly nereida nestor nettie neva nicholas nichole nick nicki
nickolas nicolas nicole niki nikita nilda nina nita noah noe noel noelle noemi nolan nona nora norbert norberto
noreen norma normand norris octavia octavio odell odis ofelia ola olen oleta olga olin oliver olivia ollie oma omar
ona opal ophelia ora oralia orval orville oscar osvaldo otis otto owen pablo paige pam pamala pamela pansy pasquale
patrica patrice patricia patrick patsy pattie patty paula paulette paulina pauline pearlie pearline pedro peggy
penelope percy perla pete peter petra phil philip phillip phillis philomena phoebe phyllis pierre polly porfirio
portia pricilla princess priscilla queen quentin quinn quinton rachael racheal rachel rachelle rafael ralph ramiro
randal randall randell randi randy raphael raquel raul raven raymond raymundo reba rebeca rebecca rebekah reed
refugio reggie reginald reid reina reinaldo rena renae renata renate rene renee renita reta retha reuben reva rex
reyes reyna reynaldo rhea rhoda rhonda ricardo richard richelle richie rick rickey rickie ricky rico rigoberto riley
rita robbie robbin robby robert roberta roberto robin robt robyn rocco rochelle rocio rod roderick rodger rodney
rodolfo rodrick rodrigo rogelio roger roland rolando rolland romeo romona ronald ronnie ronny rory rosa rosalba
rosalee rosalia rosalie rosalina rosalind rosalinda rosalyn rosanna rosanne roscoe roseann roseanne rosella roselyn
rosemarie rosemary rosendo rosie rosina rosita roslyn ross rowena roxana roxann roxanna roxanne roxie royce ruben
rubin ruby rubye rudolph rudy rufus rupert russ russel russell rusty ruth ruthann ruthie ryan sabina sabrina sadie
sallie sally salvatore sam samantha samatha sammie sammy samuel sandi sandra santa sara sarah sasha saul saundra
scarlett scot scott scottie scotty sean selena selina serena sergio seth shameka shana shanda shane shanna shannon
shanon shanta shante shantel shari sharla sharlene sharon sharonda sharron sharyn shaun shauna shawn shawna shayla
sheena sheila sheldon shelia shelley shelli shellie shelly sheree sheri sherri sherrie sherry sheryl shiela shirlene
shonda sierra silas silvia simon simone solomon sondra sonia sonja sonny sonya sophia sophie spencer stacey staci
stacia stacie stacy stan stefan stefanie stephan stephanie stephany stephen stephenie steve steven stevie stewart
sung sunny susan susana susanna susanne susie suzan suzanna suzanne suzette sybil sylvester sylvia tabatha tabitha
tad tamara tameka tamela tamera tami tamika tammi tammie tammy tana tania tanisha tanner tanya taryn tasha tatiana
tawana ted teddy tera terence terese teresita teressa teri terra terrance terrence terri terrie terry tessa tessie
thad thaddeus thanh thea theda thelma theodora theodore theresa therese theron thomas thurman tia tiana tiara
tiffani tiffany tillie tim timmy timothy tina tisha toby tod todd tom tomas tomasa tommie tommy toni tonia tonja
tony tonya tory tosha tracey traci tracie travis trena trent treva trevor trey tricia trina trisha trista tristan
trudy truman twila twyla tyra tyree tyrone tyson ulysses ursula vada valarie valentin valentina valeria valerie
valorie vance vanessa vaughn veda velda velma venessa venita venus verda verla vern verna vernell vernice veronica
vesta vicente vickey vicki vickie vicky victor vida vikki vilma vince viola violet violeta virgie virgil virgina
vito vivian viviana vonda wade waldo wallace walter wanda weldon wendell wendi wendy wesley wilbert wilbur wilburn
wilda wiley wilford wilfred wilfredo wilhelmina willa willard william williams willie willis wilma wilmer windy
winfred winifred winnie winnifred winston wyatt xavier yadira yesenia yolanda yong yvette yvonne zachariah zachery
zane zelda zella zelma zenaida zoe zoila
"""
GIVEN_NAMES = frozenset(_NAMES.split())
